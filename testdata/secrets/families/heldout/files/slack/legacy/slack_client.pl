my $token = "xoxb-130154379991-ogFL0OFP3w6AwdJuK7wLojpK";
my $alt = 'xoxb-51351043345-Lzwmto5IMVb8UK36MghZYMEi';
