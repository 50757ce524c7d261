"""The lab's panels, one module per panel."""
