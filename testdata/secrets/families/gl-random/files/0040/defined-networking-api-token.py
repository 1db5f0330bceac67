dnkeyToken = "dnkey-02=-8layge28_t3cm5yjij=aub-glh33t8qg0016i-fbasje9mp5q6nzvrab_z=u=69kxv4inx3u_2u"
