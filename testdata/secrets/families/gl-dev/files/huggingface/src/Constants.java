public final class Constants {
public static final String API_ORG_EXIST = "APIOrganizationExist";
}
