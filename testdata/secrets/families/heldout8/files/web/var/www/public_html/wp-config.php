define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', 'wp_prod' );
define( 'DB_PASSWORD', '6k1ZGf-K7XuvBh9RZtsR' );
define( 'AUTH_KEY',         '@fo5m$)V[LK,72h|p4u$lHKKr1toE.|o&>&%twnF}zuhN9{Q}AbsfaRMhnrCDRzV' );
define( 'SECURE_AUTH_SALT', 'CyTkmyH_akV0>b+R)Dw=67oUlK=Wv8ZhrnIETud.!|8w-IVT?)phukW/<GZ<q[ok' );
define( 'NONCE_KEY',        'put your unique phrase here' );
