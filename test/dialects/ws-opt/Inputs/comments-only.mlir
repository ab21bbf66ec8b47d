// Only a comment: an empty module.
