define('LOGGED_IN_KEY', 'EVK{O2vMEEerS3~JpUWIzO_ZPi&=NMP<3tJ{^F)k)PV8kI?mWU;(,>mG8n}b;Df=');
define('NONCE_SALT', '/t<^}8SHYnYKc=G;Q%2+B1-~,:P}twACL5wb8z)c)b:dg[qnY?CK!yF}NE*6)k$a');
define('AUTH_SALT', 'put your unique phrase here');
