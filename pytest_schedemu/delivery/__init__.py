"""How one attempt reaches its target (record, boto3, a test's handler), and what tests ask
of targets (failures, handlers, missing targets, denied roles)."""
