"""Provider adapters: one module per wire API, all streaming the same events."""
