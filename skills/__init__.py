"""The demo restaurant: menu, tables, opening hours, reservations, and their A2A skills."""
