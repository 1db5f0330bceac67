export AUTH0_DOMAIN='example1.us.auth0.com'
export ALGORITHMS='RS256'  # Without brackets
export API_AUDIENCE='https://example.com'
export AUTH0_CLIENT_ID='bR75Zy5DPJHhhh7mHw4k0PRRohl5Rytk'
export AUTH0_CLIENT_SECRET='_r7NxNEt5Vd8rjUB_4efca_TtxlRiG_jbWTnRYKMoI86ujEgxSpaP3BcxMx3IJDR'
