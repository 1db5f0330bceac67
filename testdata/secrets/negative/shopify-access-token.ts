export const token = "shpat_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
