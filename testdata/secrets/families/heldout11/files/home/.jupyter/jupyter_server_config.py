c.IdentityProvider.token = 'baf51aa4436e719a5e53cbe2884deb622e4c2931a9fc7057'
c.ServerApp.password = ''
