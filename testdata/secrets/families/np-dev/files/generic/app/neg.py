password = "123"
password = super$ecret

password = 'super$ecret'
