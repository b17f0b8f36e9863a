"""What the AWS APIs on the emulator's endpoint share: reading a body, botocore's models and
the shape validation they drive, paging tokens, SigV4, the faults a test injects."""
