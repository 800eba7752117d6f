// Vocabulary for synthetic records. Mixed scripts on purpose: downstream code must survive non-ASCII text.

export const FIRST_NAMES = [
  'Ana',
  'Budi',
  'Chen',
  'Dewi',
  'Élodie',
  'Farid',
  'Giulia',
  'Hiroshi',
  'Ines',
  'Jonas',
  'Kavya',
  'Łukasz',
  'Mei',
  'Nikolai',
  'Olga',
  'Priya',
  'Rafael',
  'Siti',
  'Tomás',
  'Yuki',
  'Zoë',
  '王芳',
  '김민준',
] as const;
export const LAST_NAMES = [
  'Andersson',
  'Brown',
  'Chowdhury',
  'Dubois',
  'Evans',
  'Fernández',
  'García',
  'Hartono',
  'Ivanova',
  'Kowalski',
  'Lee',
  'Müller',
  'Nakamura',
  'Okafor',
  'Pereira',
  'Rossi',
  'Santoso',
  'Tanaka',
  'Wijaya',
  'Zhang',
] as const;
export const COMPANIES = [
  'Acme Analytics',
  'Brightwave Labs',
  'Cobalt & Finch',
  'Datapoint GmbH',
  'Evergreen Systems',
  'Fjord Software AS',
  'Golden Harbor Ltd',
  'Helios Energía',
  'Indigo Robotics',
  'Jade Mountain 科技',
  'Kestrel Health',
  'Lumen Logistics',
  'Meridian Bank',
  'Nordlicht AG',
  'Orchid Foods',
  'PT Nusantara Digital',
] as const;
export const CITIES = [
  { city: 'Berlin', country: 'Germany', currency: 'EUR' },
  { city: 'London', country: 'United Kingdom', currency: 'GBP' },
  { city: 'New York, NY', country: 'United States', currency: 'USD' },
  { city: 'San Francisco, CA', country: 'United States', currency: 'USD' },
  { city: 'Jakarta', country: 'Indonesia', currency: 'IDR' },
  { city: 'Singapore', country: 'Singapore', currency: 'SGD' },
  { city: 'São Paulo', country: 'Brazil', currency: 'BRL' },
  { city: 'Kraków', country: 'Poland', currency: 'PLN' },
  { city: 'Tokyo', country: 'Japan', currency: 'JPY' },
  { city: 'Remote', country: 'Worldwide', currency: 'USD' },
] as const;
export const JOB_ROLES = [
  'Data Engineer',
  'Backend Developer',
  'Product Designer',
  'DevOps Engineer',
  'Data Analyst',
  'Machine Learning Engineer',
  'Frontend Developer',
  'QA Engineer',
  'Site Reliability Engineer',
  'Engineering Manager',
  'Technical Writer',
  'Security Engineer',
] as const;
export const SENIORITY = ['', 'Junior ', 'Senior ', 'Lead ', 'Staff ', 'Principal '] as const;
export const JOB_TYPES = ['Full-time', 'Part-time', 'Contract', 'Internship', 'Temporary'] as const;
export const LOREM = [
  'data',
  'pipeline',
  'report',
  'analysis',
  'market',
  'energy',
  'policy',
  'climate',
  'growth',
  'survey',
  'annual',
  'review',
  'strategy',
  'résumé',
  'café',
  'naïve',
  'risk',
  'supply',
  'chain',
  'index',
  'outlook',
  'study',
  'regional',
  'digital',
] as const;
export const PDF_TOPICS = [
  'Annual Report',
  'White Paper',
  'Technical Specification',
  'Market Outlook',
  'Sustainability Report',
  'Research Brief',
  'Policy Review',
  'Case Study',
  'Datasheet',
  'Survey Results',
] as const;
export const LANGUAGES = ['en', 'en', 'en', 'de', 'fr', 'id', 'ja', 'pt', 'es'] as const;
export const SOCIAL_PLATFORMS = ['linkedin', 'x', 'facebook', 'instagram', 'github'] as const;
export const POST_PHRASES = {
  positive: ['Really impressed by', 'Loving the progress on', 'Great results with', 'Huge win for', 'Excited about'],
  neutral: [
    'Reading up on',
    'Notes from a talk on',
    'Thread: what we know about',
    'Comparing options for',
    'Question about',
  ],
  negative: ['Disappointed with', 'Another outage from', 'Not convinced by', 'Frustrating week with', 'Concerns about'],
} as const;
export const EMOJI = ['🚀', '📈', '🤔', '🔥', '✅', '⚠️', '💡', '🙌'] as const;

export function words(pick: () => string, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(pick());
  return out.join(' ');
}
