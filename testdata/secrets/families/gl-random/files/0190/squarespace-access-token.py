squarespaceToken = "09e1c47d-2f39-0041-f093-5dbf253ab038"
