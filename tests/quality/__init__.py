"""The suite tests itself: mutants of reference_impl must be caught."""
