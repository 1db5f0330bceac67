import org.web3j.crypto.Credentials;
class Signer {
    Credentials credentials = Credentials.create("feb1930520e701768ca688f604e1f6d507f447727da9ec4cff0acf283a1bc22e");
    Credentials fromEnv = Credentials.create(System.getenv("DEPLOYER_KEY"));
}
