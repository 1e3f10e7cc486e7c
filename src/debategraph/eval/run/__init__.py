"""Stage 1, run: plan the arms, run every item through them, and stop or cut short safely."""
