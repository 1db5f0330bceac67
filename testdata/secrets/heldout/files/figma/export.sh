wget --header='X-Figma-Token: 1394-0ca7a5be-8e22-40ee-8c40-778d41ab2313' https://api.figma.com/v1/files/abc
