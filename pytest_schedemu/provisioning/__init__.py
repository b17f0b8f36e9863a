"""A loaded stack's resources made real: its groups, schedules and rules created through the
APIs' own checks, all or nothing."""
