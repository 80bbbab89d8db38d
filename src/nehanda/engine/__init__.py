"""The engine: the turn loop, the native-or-rescue decision, the transcript."""
