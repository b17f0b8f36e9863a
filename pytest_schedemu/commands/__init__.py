"""The one way in: every create, update and delete of a resource, and all-or-nothing
batches."""
