"""The memory tiers as the lab shows them: entries, filter, the one selected in full."""
