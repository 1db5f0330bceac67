# config variables
export AUTH0_CALLBACK_URL="http://auth0-rails.dev/callback"
export AUTH0_CLIENT_ID="nUBJjeJElAPmpwBjhWgWX6aJYovpK0n5"
export AUTH0_CLIENT_SECRET="wsxY2eUG78qKGTyUpAOUbwCDCwc8mZSQzTmNS-k0qf56uX5nAjQyjRe_iD7oq8b7"
export AUTH0_DOMAIN="appman18922506.auth0.com"
