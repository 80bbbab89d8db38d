"""``nehanda acp``: nehanda as an Agent Client Protocol agent over stdin and stdout."""
