const re = /^[A-Za-z0-9]{32}$/;
const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const base64Png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const cssHash = "2a7164613112cef02b30";
export const PASSWORD_PATTERN = "^(?=.*[A-Z])(?=.*[0-9]).{8,}$";
const tokenKey = "auth_token";
