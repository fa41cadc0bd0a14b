"""Map snapshots drawn with Pillow from an engine View (DESIGN §1; issue 6).

Nothing is drawn yet: this package exists so the layering is in place from the start.
"""
