using MessageBird;
public class SmsSender {
    private readonly Client client = Client.CreateDefault("1nDvC4UWTafGIkZwRES7Y6V2o");
}
