"""A stack's own Lambda functions: what the stack says of each, and its handler run in
process with Lambda's environment and context."""
