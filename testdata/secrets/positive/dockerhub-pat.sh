echo "dckr_pat_WmzDtkKOOiuPLq2grD85-DUiU0J" | docker login -u acmebot --password-stdin
