new Gitalk({
  clientID: 'd17d49be2e680b78a83d',
  clientSecret:'9363cb456dda6402cb71d65092490e75c9f11873',
  repo: 'blog'
})
