harnessToken := "pat.SkiHlcfRw9KlzqchsI7hxS.4822812f410729215cacb5d6.nuv2z3a2d45q8ltbww1a"
