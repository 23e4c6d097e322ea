"""The file plumbing: reading a user's file, writing outputs whole,
and the object table of streamed traces."""
