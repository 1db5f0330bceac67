contentfulToken := "tpl8vktgfjl43jazkpcp14mmwfixmop669rih7yu3vx"
