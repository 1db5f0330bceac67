define wget::authfetch($source,$destination,$user,$password="",$timeout="0",$verbose=false) {
}
