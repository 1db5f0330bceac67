	proxyAuth := "SZEpmc3HdZ9ZRgxR4OYiGf6ZOEbXwl3d"
