"""EventBridge's rule operations (JSON 1.1) on the emulator's endpoint."""
