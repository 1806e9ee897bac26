"""Hand-run tools (the demo cluster's generator, the README picture): not the product, not shipped."""
