// getData()
// {
//  let url="http://localhost:4200/api/search"
//  const headers = new HttpHeaders({
//    'Content-Type': 'application/json',
//    'Authorization': `Bearer glsa_Sof0HKi3agxrQP9qm5r2G98VacBNwV5P_9b638c45`
//  })
// }
