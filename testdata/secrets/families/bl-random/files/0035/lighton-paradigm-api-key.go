paradigmToken := "0jDeE83x0a3bi9BZEw0uhhYd1jp04Nn77zVFF-HrifegG7Vv"
