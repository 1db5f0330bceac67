cerebrasToken := "csk-t30duel8l6cqs6hib1s6o6v86ijz78mz5wlzz8bhhwwwbn8w"
