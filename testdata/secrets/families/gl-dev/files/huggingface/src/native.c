- (id)hf_requiredCharacteristicTypesForDisplayMetadata;
  M_UINT       (ServingCellPriorityParametersDescription_t,  H_PRIO,  2, &hf_servingcellpriorityparametersdescription_h_prio),
