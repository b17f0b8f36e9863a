"""Every option, declared once: the options table, how values are parsed and checked, and
how the layers (marker, command line, ini, the emulator's own values) combine."""
