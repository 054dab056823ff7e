# Makes `deskgate_runtime` importable when pytest runs from the repository root.
