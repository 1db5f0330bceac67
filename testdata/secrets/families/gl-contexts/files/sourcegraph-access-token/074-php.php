$sourcegraphToken .= "sgp_0D697F54cb24238EefB29af05Abf1b505E90950F"
