"""Online evaluation."""
