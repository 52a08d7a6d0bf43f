//! Never built: the manifest exists only to be vendored and locked.
