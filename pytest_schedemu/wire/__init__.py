"""The ways in: the in-thread HTTP server, the in-process transport, interception of
every botocore client, and the clients bound to an emulator."""
