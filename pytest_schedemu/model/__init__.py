"""The resource model: frozen records of schedules, groups and targets, and their ARNs."""
