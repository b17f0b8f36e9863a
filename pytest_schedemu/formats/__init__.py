"""How values are read and written everywhere: instants and their ISO forms, JSON text."""
