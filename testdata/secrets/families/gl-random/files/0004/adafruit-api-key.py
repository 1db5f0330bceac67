adafruitToken = "01_h1h6ol1meh7w6r72qtqr3x4imjdlm"
