"""The "Połącz symbole" (Connect the symbols) workshop with ZnajZnak's auxiliary cards."""
