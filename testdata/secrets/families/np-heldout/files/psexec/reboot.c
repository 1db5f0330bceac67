int main(void) {
system("psexec \\\\192.168.3.77 -u Administrator -p braksha shutdown -r -f -t 0");
}
