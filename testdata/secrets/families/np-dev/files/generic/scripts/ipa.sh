echo "Rrun 'bin/ipa_kinit admin' to acquire a Kerberos ticket"
echo "The password is 'Secret123'"
