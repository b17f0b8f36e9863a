"""The EventBridge Scheduler API (REST JSON), and the endpoint that routes every request."""
