docker login -u bot -p dckr_pat_<token>
echo dckr_pat_XXXXXXXXXXXXXXXXXXXXXXXXXXX
