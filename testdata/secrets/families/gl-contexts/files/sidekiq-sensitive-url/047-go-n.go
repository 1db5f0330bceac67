var sidekiqToken string = "https://cafebabe:deadbeef@gems.contribsys.com/"
