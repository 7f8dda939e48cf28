"""Vision floor: one camera frame (and the table calibration) → an observed state (FORMATS §2)."""
